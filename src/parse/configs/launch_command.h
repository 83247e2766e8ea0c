// A training job's command line, as a shell script, a README or an issue
// holds it: the launcher, its options, the script and the trainer's
// arguments, as settings.
//
//   deepspeed --num_gpus 8 --hostfile hostfile train.py --deepspeed ds_config.json
//       --per_device_train_batch_size 4 --bf16 True      (one line, or continued with \)
//   ->  launcher = deepspeed, launcher_args.num_gpus = 8, launcher_args.hostfile = hostfile,
//       script = train.py, args.deepspeed = ds_config.json,
//       args.per_device_train_batch_size = 4, args.bf16 = True
//
// Launchers: deepspeed, torchrun, python -m torch.distributed.run (and
// .launch: launcher "torch.distributed.run"), accelerate launch,
// llamafactory-cli (subcommand = train, script = its YAML), axolotl and
// python -m axolotl.cli.train (launcher "axolotl"), ms-swift's swift sft,
// pt and rlhf (launcher "swift", its options as args.*), and a bare python
// running a .py script (launcher "python"). Before the launcher, NAME=value
// gives env.NAME; srun, mpirun, nohup and prose ("- Command: `...`") are
// passed over.
#pragma once

#include <optional>
#include <string_view>

#include "parse/configs/dotted_settings.h"

namespace ftdiag::parse {

// Pure and total. Backslash-newline continuations are joined and quotes
// removed as a shell would; option names have '-' read as '_'
// (--nproc-per-node is nproc_per_node); an option followed by another option,
// or by nothing, is a flag ("true"). The first line with a launcher counts,
// up to a shell operator (&&, ;, |, >). nullopt when no line has one.
// "command" holds the command as read (at most 2000 bytes).
std::optional<DottedSettings> read_launch_command(std::string_view text);

}  // namespace ftdiag::parse
