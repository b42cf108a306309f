/* Instructions executed by a piece of firmware under QEMU, read from a timer of the board.
 *
 * Run with `qemu-system-arm -M mps2-an386 -icount shift=0,sleep=off ...`: in icount mode QEMU's
 * virtual clock advances by 2^shift ns per guest instruction executed (shift=0: 1 ns) and, with
 * sleep=off, never with host time, so a timer of the board counts executed instructions.
 *
 * The timer is the board's CMSDK APB timer 0 (Arm CMSDK APB timer, AN386 memory map: 0x40000000;
 * QEMU: hw/timer/cmsdk-apb-timer.c, `info mtree` lists it): a 32-bit down counter, registers
 * CTRL (+0x0, bit 0 enable), VALUE (+0x4), RELOAD (+0x8), clocked by the board's PCLK, which
 * QEMU's hw/arm/mps2.c ties to SYSCLK = 25 MHz: one tick every 40 ns, i.e. every 40 instructions,
 * wrapping after 2^32 ticks (about 1.7e11 instructions). SysTick (24 bits at the same clock)
 * would wrap after 6.7e8 instructions; the core's DWT cycle counter is not modelled by QEMU.
 *
 * The factor is not assumed: icount_spin(n) executes exactly 2n + c instructions (a `subs`/`bne`
 * loop of n iterations, c constant), and timing it for two values of n gives the instructions per
 * tick as 2 (n2 - n1) / (ticks2 - ticks1) (benchmarks/cortex_m.py and tests/e2e/test_cortex_m.py
 * do so in the same QEMU run as the measurement). Resolution: one tick (40 instructions). */
#ifndef IREEC_EXAMPLE_ICOUNT_TIMER_H
#define IREEC_EXAMPLE_ICOUNT_TIMER_H

#include <stdint.h>

#define ICOUNT_TIMER_BASE 0x40000000u
#define ICOUNT_TIMER_CTRL (*(volatile uint32_t *)(ICOUNT_TIMER_BASE + 0x0u))
#define ICOUNT_TIMER_VALUE (*(volatile uint32_t *)(ICOUNT_TIMER_BASE + 0x4u))
#define ICOUNT_TIMER_RELOAD (*(volatile uint32_t *)(ICOUNT_TIMER_BASE + 0x8u))

/* Starts timer 0 counting down from 0xFFFFFFFF (reloaded with it after reaching 0). */
static inline void icount_timer_start(void) {
  ICOUNT_TIMER_CTRL = 0u;
  ICOUNT_TIMER_RELOAD = 0xFFFFFFFFu;
  ICOUNT_TIMER_VALUE = 0xFFFFFFFFu;
  ICOUNT_TIMER_CTRL = 1u;
}

/* The counter now (ticks; it counts down: elapsed = earlier - later, modulo 2^32). */
static inline uint32_t icount_timer_now(void) { return ICOUNT_TIMER_VALUE; }

/* Exactly n iterations of a 2-instruction loop (n >= 1): 2n instructions plus the call. */
static __attribute__((noinline)) void icount_spin(uint32_t n) {
  __asm volatile("1:\n\tsubs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}

/* Ticks taken by icount_spin(n). */
static inline uint32_t icount_spin_ticks(uint32_t n) {
  const uint32_t t0 = icount_timer_now();
  icount_spin(n);
  return t0 - icount_timer_now();
}

#endif
