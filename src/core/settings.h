// Process-wide settings: backwards-compatibility toggles, broadcast policy,
// the warning handler and the thread count. All safe to change from any thread.
#ifndef BCAST_CORE_SETTINGS_H_
#define BCAST_CORE_SETTINGS_H_

#include <string>

#include "bcast/bcast.h"

namespace bcast {

bool BroadcastWarningOn();
bool LegacyPointwiseOn();
bc_policy Policy();
bool WarningsAsErrors();
int NumThreads();

// Sends `message` to the handler, or throws BC_ERR_POLICY when warnings are errors.
void Warn(const std::string& message);

}  // namespace bcast

#endif  // BCAST_CORE_SETTINGS_H_
