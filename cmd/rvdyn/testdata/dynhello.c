/* A dynamically linked program (PT_INTERP), which rvdyn refuses with one
   line until it can run a dynamic linker (qemu_test.go). */
#include <stdio.h>
int main(void) {
  puts("hello, dynamically");
  return 0;
}
