/* Prints the SIMD target chosen on this CPU, then, for each target name
 * Highway may use, whether bc_set_simd_cap() accepts it and what dispatch
 * then picks. Built against both libraries: the static one carries bcast's
 * own Highway run-time functions (src/hwy_runtime/), the shared one uses the
 * system's libhwy, and the two outputs must be equal (check_same_output.cmake). */
#include <stdio.h>

#include <bcast/bcast.h>

int main(void) {
  static const char* const names[] = {"AVX3_SPR", "AVX3_ZEN4", "AVX3_DL", "AVX3", "AVX2", "SSE4",
                                      "SSSE3",    "SSE2",      "EMU128",  "SCALAR", "NEON",
                                      "SVE",      "SVE2",      "bogus"};
  printf("default: %s\n", bc_simd_target());
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    bc_status s = bc_set_simd_cap(names[i]);
    printf("cap %s: %s -> %s\n", names[i], s == BC_OK ? "ok" : "refused", bc_simd_target());
  }
  bc_set_simd_cap(NULL);
  printf("uncapped: %s\n", bc_simd_target());
  return 0;
}
