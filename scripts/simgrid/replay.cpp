// Replays a Gridscope node timeline on a real SimGrid with its host energy plugin and prints
// each host's joules (issue #40's reference). Input: a platform file and an actions file
// written by gridscope::energy::simgrid — `hosts N`, `busy n<i> FROM TO K` (K cores busy),
// `off n<i> FROM TO`, `pstate n<i> FROM TO P` (the idle host in power state P: switching
// off or booting, as Batsim models them), `end T` (seconds). Output: `n<i> JOULES` per
// host, in host order.
// Built by scripts/simgrid_test.sh against Debian's libsimgrid-dev (SimGrid 3.32).
#include <simgrid/plugins/energy.h>
#include <simgrid/s4u.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

struct Piece {
  std::string kind;
  std::string host;
  double from = 0;
  double to   = 0;
  int cores   = 0;
  int pstate  = 0;
};

int main(int argc, char* argv[])
{
  sg_host_energy_plugin_init();
  sg4::Engine engine(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PLATFORM.xml ACTIONS\n", argv[0]);
    return 2;
  }
  engine.load_platform(argv[1]);
  std::ifstream in(argv[2]);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[2]);
    return 2;
  }
  int hosts  = 0;
  double end = 0;
  std::vector<Piece> pieces;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    number++;
    std::istringstream f(line);
    Piece p;
    f >> p.kind;
    bool ok = true;
    if (p.kind == "hosts")
      ok = static_cast<bool>(f >> hosts);
    else if (p.kind == "end")
      ok = static_cast<bool>(f >> end);
    else if (p.kind == "busy")
      ok = static_cast<bool>(f >> p.host >> p.from >> p.to >> p.cores);
    else if (p.kind == "off")
      ok = static_cast<bool>(f >> p.host >> p.from >> p.to);
    else if (p.kind == "pstate")
      ok = static_cast<bool>(f >> p.host >> p.from >> p.to >> p.pstate);
    else if (!p.kind.empty())
      ok = false;
    if (!ok) {
      std::fprintf(stderr, "%s line %d: cannot read '%s'\n", argv[2], number, line.c_str());
      return 2;
    }
    if (p.kind == "busy" || p.kind == "off" || p.kind == "pstate")
      pieces.push_back(p);
  }
  // One controller per host, on `ctl`, plays the host's pieces in their order: a piece
  // that starts as the one before it ends takes over from it (a boot straight after a
  // switch-off), so no two actors race at one instant over a host's state. A piece with
  // no successor at its end leaves the host on, computing nothing, in power state 0.
  // Job actors are started by the controller at their piece's start: an actor waiting on
  // a host that is turned off before its piece would be killed with the host.
  sg4::Host* ctl = sg4::Host::by_name("ctl");
  std::map<std::string, std::vector<Piece>> by_host;
  for (const Piece& p : pieces)
    by_host[p.host].push_back(p);
  for (const auto& [name, mine] : by_host) {
    sg4::Host* host = sg4::Host::by_name(name);
    sg4::Actor::create("control", ctl, [mine, host]() {
      for (size_t k = 0; k < mine.size(); k++) {
        const Piece& p = mine[k];
        sg4::this_actor::sleep_until(p.from);
        if (p.kind == "off") {
          host->set_pstate(0);
          host->turn_off();
        } else {
          if (!host->is_on())
            host->turn_on();
          // Nothing computes on a switching host: its idle wattage there is the switch's.
          host->set_pstate(p.kind == "pstate" ? p.pstate : 0);
        }
        if (p.kind == "busy")
          for (int c = 0; c < p.cores; c++)
            sg4::Actor::create("job", host,
                               [p, host]() { sg4::this_actor::execute((p.to - p.from) * host->get_speed()); });
        bool next_now = k + 1 < mine.size() && mine[k + 1].from == p.to;
        if (!next_now && p.kind != "busy") {
          sg4::this_actor::sleep_until(p.to);
          if (!host->is_on())
            host->turn_on();
          host->set_pstate(0);
        }
      }
    });
  }
  sg4::Actor::create("report", ctl, [hosts, end]() {
    sg4::this_actor::sleep_until(end);
    for (int i = 0; i < hosts; i++) {
      std::string name = "n" + std::to_string(i);
      std::printf("%s %.17g\n", name.c_str(), sg_host_get_consumed_energy(sg4::Host::by_name(name)));
    }
    std::fflush(stdout);
  });
  engine.run();
  return 0;
}
