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

void SetBroadcastWarning(bool on);
void SetLegacyPointwise(bool on);
void SetWarningsAsErrors(bool on);
void SetPolicy(bc_policy policy);  // a valid policy
void SetNumThreads(int n);         // <= 0: OpenMP's default
void SetWarningHandler(bc_warning_fn fn, void* user);  // NULL: print to stderr

// Sends `message` to the handler, or throws BC_ERR_POLICY when warnings are errors.
void Warn(const std::string& message);

}  // namespace bcast

#endif  // BCAST_CORE_SETTINGS_H_
