#include "tessera/driver/cli.hpp"

int main(int argc, char** argv) { return tessera::driver::tessera_main(argc, argv); }
