/* Minimal Cortex-M4F startup for the ireec example: vector table, FPU on, .data copied
 * from flash to RAM, then newlib's _start (which zeroes .bss, sets up semihosting I/O and
 * calls main). Written for QEMU's mps2-an386 board (Arm's AN386: Cortex-M4 on MPS2). */
#include <stdint.h>

extern uint32_t __stack_top;
extern uint32_t __data_load__, __data_start__, __data_end__;
extern void _start(void);
void Reset_Handler(void);

static void Default_Handler(void) {
  for (;;) {
  }
}

/* Armv7-M vector table: initial stack pointer, then the reset and fault handlers. */
__attribute__((section(".isr_vector"), used))
const void *const vector_table[16] = {
  &__stack_top, (void *)Reset_Handler, (void *)Default_Handler, (void *)Default_Handler,
  (void *)Default_Handler, (void *)Default_Handler, (void *)Default_Handler, 0, 0, 0, 0,
  (void *)Default_Handler, (void *)Default_Handler, 0, (void *)Default_Handler, (void *)Default_Handler,
};

void Reset_Handler(void) {
  /* CPACR (0xE000ED88): full access to CP10 and CP11, the FPU, before any float instruction. */
  volatile uint32_t *cpacr = (volatile uint32_t *)0xE000ED88u;
  *cpacr |= 0xFu << 20;
  __asm volatile("dsb\n\tisb");
  const uint32_t *src = &__data_load__;
  for (uint32_t *dst = &__data_start__; dst < &__data_end__;) {
    *dst++ = *src++;
  }
  _start();
  for (;;) {
  }
}
