// Placeholder until the CLI lands.
#include <cstdio>
int main() { std::puts("vatkit"); return 0; }
