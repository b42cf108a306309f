/* Runs the generated `abs` module (tests/e2e/inputs/abs.mlir) on a static input and prints
 * the result through semihosting: `f32=2`, as `ireec run-module --input=f32=-2` does. */
#include <stdio.h>

#include "abs.h"

/* The workspace arena, sized and aligned by the generated header alone
 * (ABS_WORKSPACE_ARRAY_SIZE is at least 1 even when abs needs no workspace). */
IREEC_ALIGNAS(ABS_WORKSPACE_ALIGNMENT) static uint8_t workspace[ABS_WORKSPACE_ARRAY_SIZE];

int main(void) {
  static const ABS_ABS_INPUT0_ELEMENT_CTYPE input = -2.0f;
  static ABS_ABS_OUTPUT0_ELEMENT_CTYPE result;
  ireec_status_t status = abs_abs(&input, &result, workspace);
  if (status != IREEC_STATUS_OK) {
    printf("error: status %d\n", (int)status);
    return 1;
  }
  printf("f32=%g\n", (double)result);
  return 0;
}
