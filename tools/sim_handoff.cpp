// In dfx, the simulator's subcommands hand the whole command line over to dfx-sim, found beside
// the running executable (tools/commands.h, SimulatorCommand). dfx has parsed it already, so
// a mistyped option is reported without starting the simulator; dfx-sim parses it again, as the
// same command line, and its output and exit code are the command's.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <system_error>

#include "tools/commands.h"

namespace dfx::cli {

int run_simulator_command(const SimulatorCommand& c, char** argv) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path sim = self.parent_path() / "dfx-sim";
  if (!ec) {
    std::cout.flush();
    execv(sim.c_str(), argv);  // returns only if it failed
  }
  const std::string why = ec ? "cannot find the running executable (" + ec.message() + ")" : std::strerror(errno);
  const char* command = c.simulate ? "simulate" : c.compare ? "compare" : "cosim";
  std::cerr << "dfx: " << command << " runs in dfx-sim, the simulator's build of dfx, expected beside dfx at " << sim.string()
            << ": " << why << '\n';
  return 3;
}

}  // namespace dfx::cli
