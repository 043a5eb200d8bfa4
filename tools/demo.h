// `bcast demo`: every example of PyTorch's broadcasting notes, run through
// the library with real values. Each result is checked against a naive loop
// and each error against PyTorch's text, so the demo doubles as a smoke test
// (exit status 1 if anything disagrees).
#ifndef BCAST_TOOLS_DEMO_H_
#define BCAST_TOOLS_DEMO_H_

#include <ostream>

namespace bcast_cli {

// Runs every example; returns the exit status (0 when all agree).
int RunDemo(std::ostream& os);

}  // namespace bcast_cli

#endif  // BCAST_TOOLS_DEMO_H_
