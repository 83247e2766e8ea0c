// The configurations a training job's command names, read as the job will
// read them: the launch command itself (launcher, ranks per node, the
// trainer's arguments), the DeepSpeed config it passes (--deepspeed,
// --deepspeed_config, accelerate's --deepspeed_config_file and
// --config_file), a LLaMA-Factory or axolotl recipe given as the script and
// the DeepSpeed config it names, and the local model folder the command or
// the recipe trains (--model_name_or_path, model_name_or_path, base_model):
// its config.json and its weights' safetensors headers.
//
// `ftdiag preflight -- CMD` and `ftdiag run`'s forecast of the checkpoint
// save read a job's setup this way. The files are the ones the command
// names, relative to the folder it runs in, and are read as named (the
// user chose the command): only regular files, each bounded, none waited on.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "parse/configs/dotted_settings.h"

namespace ftdiag::collect {

struct CommandConfig {
  std::string file;  // as the command names it; for the command itself, the label given
  std::string kind;  // "launch-command", "deepspeed", "llamafactory", "model-config", "model-weights", ...
  parse::DottedSettings settings;
};

struct CommandConfigs {
  std::vector<CommandConfig> configs;  // the command first, then in the order named
  // A file the command names that could not be read or understood, with why
  // ("ds_z3.json: No such file or directory"): printable.
  std::vector<std::string> unread;
};

// The words as a shell would need them, joined with spaces, so that the
// launch-command reader sees the command as it was given.
std::string command_line_text(const std::vector<std::string>& argv);

// Nothing when the command has no launcher the launch-command reader knows
// (parse/configs/launch_command.h). `label` names the command itself in
// CommandConfig::file ("the command after --", "the job's command").
CommandConfigs read_command_configs(const std::vector<std::string>& argv, const std::filesystem::path& working_directory,
                                    const std::string& label);

}  // namespace ftdiag::collect
