// Reading profile files: every key and type, and file:line:column in every error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan_test_support.hpp"
#include "trn/plan/load_profile.hpp"

namespace {

using plan_test::error_of;
using plan_test::minimal_profile;
using testing::HasSubstr;
using testing::StartsWith;
using namespace trn::plan;

Profile parse(const std::string& text) { return parse_profile(text, "p.yaml", "p"); }

// Each row: keys added to the minimal profile, and how the error they cause starts.
void expect_errors_start_with(
    const std::vector<std::pair<std::string, std::string>>& added_and_message_start) {
  for (const auto& row : added_and_message_start) {
    // The pair, not its structured bindings: clang before 16 cannot capture those in a lambda.
    EXPECT_THAT(error_of([&row] { parse(minimal_profile + row.first); }), StartsWith(row.second));
  }
}

TEST(ProfileYaml, ReadsEveryKey) {
  const Profile p = parse(
      "description: all keys\n"
      "command: python3 train.py --mb {micro_batch}\n"
      "model: large\n"
      "data: /fsx/data\n"
      "seq_len: 128\n"
      "micro_batch: 16\n"
      "global_batch: 16384\n"
      "scaling: weak\n"
      "lr: 4e-4\n"
      "lr_scaling: sqrt\n"
      "reference_nodes: 2\n"
      "steps: 28125\n"
      "warmup: 2000\n"
      "checkpoint_every: 100\n"
      "keep_checkpoints: 0\n"
      "compile_steps: 3\n"
      "seed: 7\n"
      "launch: torchrun\n"
      "tensor_parallel: 8\n"
      "pipeline_parallel: 2\n"
      "cpu_workers_per_node: 4\n"
      "output_root: /fsx/runs\n"
      "max_restarts: 5\n"
      "requeue: always\n"
      "env:\n"
      "  FOO: bar\n"
      "  TIMEOUT: 600\n");
  EXPECT_EQ(p.name, "p");
  EXPECT_EQ(p.source, "p.yaml");
  EXPECT_EQ(p.description, "all keys");
  EXPECT_EQ(p.command, (std::vector<std::string>{"python3", "train.py", "--mb", "{micro_batch}"}));
  EXPECT_EQ(p.model, "large");
  EXPECT_EQ(p.data, "/fsx/data");
  EXPECT_EQ(p.seq_len, 128);
  EXPECT_EQ(p.micro_batch, 16);
  EXPECT_EQ(p.global_batch, 16384);
  EXPECT_EQ(p.scaling, Scaling::kWeak);
  EXPECT_DOUBLE_EQ(*p.lr, 4e-4);
  EXPECT_EQ(p.lr_scaling, LrRule::kSqrt);
  EXPECT_EQ(p.reference_nodes, 2);
  EXPECT_EQ(p.steps, 28125);
  EXPECT_EQ(p.warmup, 2000);
  EXPECT_EQ(p.checkpoint_every, 100);
  EXPECT_EQ(p.keep_checkpoints, 0);
  EXPECT_EQ(p.compile_steps, 3);
  EXPECT_EQ(p.seed, 7);
  EXPECT_EQ(p.launch, LaunchMode::kTorchrun);
  EXPECT_EQ(p.tensor_parallel, 8);
  EXPECT_EQ(p.pipeline_parallel, 2);
  EXPECT_EQ(p.cpu_workers_per_node, 4);
  EXPECT_EQ(p.output_root, "/fsx/runs");
  EXPECT_EQ(p.max_restarts, 5);
  EXPECT_EQ(p.requeue, RequeuePolicy::kAlways);
  EXPECT_EQ(p.env, (std::map<std::string, std::string>{{"FOO", "bar"}, {"TIMEOUT", "600"}}));
}

TEST(ProfileYaml, DefaultsForOptionalKeys) {
  const Profile p = parse(minimal_profile);
  EXPECT_EQ(p.scaling, Scaling::kStrong);
  EXPECT_FALSE(p.lr.has_value());
  EXPECT_FALSE(p.seq_len.has_value());
  EXPECT_EQ(p.lr_scaling, LrRule::kNone);
  EXPECT_EQ(p.reference_nodes, 1);
  EXPECT_EQ(p.launch, LaunchMode::kPerCore);
  EXPECT_EQ(p.tensor_parallel, 1);
  EXPECT_EQ(p.pipeline_parallel, 1);
  EXPECT_EQ(p.cpu_workers_per_node, 1);
  EXPECT_EQ(p.requeue, RequeuePolicy::kNodeFailure);
  EXPECT_EQ(p.output_root, "runs");
  EXPECT_TRUE(p.env.empty());
}

TEST(ProfileYaml, CommandAsAListKeepsEachItemOneWord) {
  const Profile p = parse(
      "command: [python3, my script.py, --name, '{profile} run']\n"
      "micro_batch: 1\nglobal_batch: 1\nsteps: 1\n");
  EXPECT_EQ(p.command,
            (std::vector<std::string>{"python3", "my script.py", "--name", "{profile} run"}));
}

TEST(ProfileYaml, CommandAsTextIsSplitLikeAShell) {
  const Profile p = parse(
      "command: >-\n"
      "  python3 'my script.py'\n"
      "  --tag \"a b\"\n"
      "micro_batch: 1\nglobal_batch: 1\nsteps: 1\n");
  EXPECT_EQ(p.command, (std::vector<std::string>{"python3", "my script.py", "--tag", "a b"}));
}

TEST(ProfileYaml, QuotedNumbersAreAccepted) {
  EXPECT_EQ(parse(minimal_profile + "seq_len: \"512\"\n").seq_len, 512);
}

TEST(ProfileYaml, UnknownKeySuggestsTheClosestWithLineAndColumn) {
  EXPECT_EQ(error_of([] { parse("micro_bacth: 4\n" + minimal_profile); }),
            "p.yaml:1:1: unknown key 'micro_bacth' (did you mean 'micro_batch'?)");
  EXPECT_EQ(error_of([] { parse(minimal_profile + "  \n  # c\nGlobal-Batch: 8\n"); }),
            "p.yaml:7:1: unknown key 'Global-Batch' (did you mean 'global_batch'?)");
}

// The profile's strings go into plan.json: a byte that is not UTF-8 made trn-run fail with
// nlohmann's "[json.exception.type_error.316] invalid UTF-8 byte" instead of naming the file.
TEST(ProfileYaml, TextThatIsNotUtf8IsNamedWithLineAndColumn) {
  EXPECT_EQ(error_of([] { parse(minimal_profile + "description: caf\xe9\n"); }),
            "p.yaml:5:17: not UTF-8 text (byte 0xE9); save the profile as UTF-8");
}

TEST(ProfileYaml, UnknownKeyWithoutNeighbourListsTheKeys) {
  const auto message = error_of([] { parse(minimal_profile + "colour: blue\n"); });
  EXPECT_THAT(message, StartsWith("p.yaml:5:1: unknown key 'colour'; keys: description, command,"));
  EXPECT_THAT(message, HasSubstr("replace_stragglers, forecast_model, env"));
}

TEST(ProfileYaml, WrongTypesNameTheValueAndItsPlace) {
  EXPECT_EQ(error_of([] { parse(minimal_profile + "seq_len: long\n"); }),
            "p.yaml:5:10: seq_len must be a whole number >= 1 (sequence length, for {seq_len}), "
            "got 'long'");
  EXPECT_EQ(error_of([] { parse(minimal_profile + "warmup: [1, 2]\n"); }),
            "p.yaml:5:9: warmup must be a whole number >= 0 (learning-rate warm-up steps), got "
            "a list");
  expect_errors_start_with({
      {"lr: 1e-3x\n", "p.yaml:5:5: lr must be a number > 0"},
      {"launch: per_core\n", "p.yaml:5:9: launch must be per-core, torchrun or mpirun"},
      {"tensor_parallel: 0\n", "p.yaml:5:18: tensor_parallel must be a whole number >= 1"},
      {"steps2: 1\n", "p.yaml:5:1: unknown key 'steps2' (did you mean 'steps'?)"},
  });
}

TEST(ProfileYaml, AnEmptyValueIsReportedAtItsKey) {
  EXPECT_EQ(error_of([] { parse(minimal_profile + "data:\n"); }),
            "p.yaml:5:1: data must be a path (the training data directory, for {data}), got "
            "nothing");
}

TEST(ProfileYaml, DuplicateKeysAreRejected) {
  EXPECT_EQ(error_of([] { parse(minimal_profile + "steps: 20\n"); }),
            "p.yaml:5:1: duplicate key 'steps' (first at line 4): keep only one");
  EXPECT_EQ(error_of([] { parse(minimal_profile + "env:\n  A: 1\n  A: 2\n"); }),
            "p.yaml:7:3: duplicate key 'A' in env (first at line 6): keep only one");
}

TEST(ProfileYaml, EnvMustBeAMappingOfNamesToValues) {
  expect_errors_start_with({
      {"env: [A, B]\n", "p.yaml:5:6: env must be a mapping of NAME: value, got a list"},
      {"env:\n  1BAD: x\n", "p.yaml:6:3: env name '1BAD' is not a variable name"},
      {"env:\n  A: {b: c}\n", "p.yaml:6:6: env.A must be a single value"},
      {"env:\n  A: {run_dir}\n",
       "p.yaml:6:6: env.A must be a single value (quote it for text), got a mapping (YAML reads an "
       "unquoted '{...}' as one: quote the value"},
      {"env:\n  A: '{rundir}'\n",
       "p.yaml:6:6: env.A: unknown placeholder {rundir} in '{rundir}' (did you mean 'run_dir'?)"},
  });
}

TEST(ProfileYaml, UnknownPlaceholdersFailAtLoadTime) {
  EXPECT_THAT(
      error_of([] {
        parse(
            "command: python3 t.py --mb {micro_bach}\nmicro_batch: 1\nglobal_batch: 1\n"
            "steps: 1\n");
      }),
      StartsWith(
          "p.yaml:1:10: command: unknown placeholder {micro_bach} in '{micro_bach}' (did "
          "you mean 'micro_batch'?); known placeholders: checkpoint_dir, checkpoint_every,"));
  // In the list form the item itself is pointed at.
  EXPECT_THAT(error_of([] {
                parse(
                    "command:\n  - python3\n  - --x={nope}\nmicro_batch: 1\nglobal_batch: 1\n"
                    "steps: 1\n");
              }),
              StartsWith("p.yaml:3:5: command: unknown placeholder {nope} in '--x={nope}'"));
}

TEST(ProfileYaml, MissingRequiredKeys) {
  EXPECT_EQ(error_of([] { parse("command: x\nmicro_batch: 1\nglobal_batch: 1\n"); }),
            "p.yaml:1:1: missing required key 'steps' (optimizer steps in total); add e.g. "
            "'steps: 28125'");
  EXPECT_THAT(error_of([] { parse("micro_batch: 1\n"); }),
              StartsWith("p.yaml:1:1: missing required key 'command'"));
}

TEST(ProfileYaml, NotAProfileAtAll) {
  EXPECT_THAT(error_of([] { parse(""); }), StartsWith("p.yaml:1:1: the profile is empty"));
  EXPECT_THAT(error_of([] { parse("- a\n- b\n"); }),
              StartsWith("p.yaml:1:1: a profile is a mapping of keys"));
  EXPECT_THAT(error_of([] { parse("micro_batch: [1, 2\n"); }),
              StartsWith("p.yaml:2:1: not valid YAML: "));
}

TEST(ProfileYaml, FilesAreNamedAfterTheirStem) {
  plan_test::TempDir dir;
  const auto file = dir.write("mine.yml", minimal_profile);
  const Profile p = load_profile_file(file);
  EXPECT_EQ(p.name, "mine");
  EXPECT_EQ(p.source, file);
  EXPECT_THAT(error_of([&] { load_profile_file(dir.path() / "absent.yaml"); }),
              HasSubstr("absent.yaml: cannot read the profile"));
}

}  // namespace

namespace {

TEST(ProfileYaml, AFileThatIsNoProfileIsQuotedShortly) {
  std::string passwd;
  for (int i = 0; i < 40; ++i) {
    passwd += "user" + std::to_string(i) + ":x:" + std::to_string(1000 + i) +
              ":100::/home/user:/bin/sh\n";
  }
  const auto message = error_of([&] { parse(passwd); });
  EXPECT_THAT(message, StartsWith("p.yaml:1:1: a profile is a mapping of keys"));
  EXPECT_THAT(message, HasSubstr("'user0:x:1000:100::/home/user:/bin/sh user1:x:1001:100::/home"
                                 "...' (1509 characters)"));
  EXPECT_LT(message.size(), 220u) << message;
  // A short value is quoted whole.
  EXPECT_THAT(error_of([&] { parse("a\n"); }), HasSubstr("got 'a'"));
}

}  // namespace
