// The heartbeat: a record journaled and synced every heartbeat interval, so
// the journal on a shared filesystem says up to when its node was alive. A
// node that vanished (power, a kernel panic, the network) leaves a journal
// with no end record whose last heartbeat is its last sign of life; one whose
// ftdiag exited leaves an end record. `ftdiag analyze` tells them apart.
#pragma once

#include "supervise/live_source.h"

namespace ftdiag::supervise {

// Required where the interval is set (it always is: 0 is refused by the CLI).
OpenedSource open_heartbeat(SourceSetup& setup);

}  // namespace ftdiag::supervise
