/* Runs the generated `abs` module (tests/e2e/inputs/abs.mlir) on a static input and prints
 * the result through semihosting: `f32=2`, as `ireec run-module --input=f32=-2` does. */
#include <stdio.h>

#include "abs.h"

/* The workspace arena: a static array sized by the generated header. */
static unsigned char workspace[ABS_WORKSPACE_SIZE + 1] __attribute__((aligned(64)));

int main(void) {
  static const float input = -2.0f;
  static float result;
  ireec_status_t status = abs_abs(&input, &result, workspace);
  if (status != IREEC_STATUS_OK) {
    printf("error: status %d\n", (int)status);
    return 1;
  }
  printf("f32=%g\n", (double)result);
  return 0;
}
