/* A guest that ends by abort(): raise(SIGABRT) through tgkill, so the
   process dies of SIGABRT (status 134) after its output is flushed. */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  printf("about to abort\n");
  fflush(stdout);
  abort();
}
