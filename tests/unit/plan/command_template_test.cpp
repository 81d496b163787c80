// Command templates: words split before substitution, placeholders, escaped braces.
#include "trn/plan/command_template.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan_test_support.hpp"
#include "trn/plan/plan.hpp"

namespace {

using plan_test::error_of;
using testing::HasSubstr;
using testing::StartsWith;
using namespace trn::plan;

using Words = std::vector<std::string>;

TEST(SplitCommandWords, BlanksQuotesAndBackslashes) {
  EXPECT_EQ(split_command_words("  python3   -m\ttrn_trainer\n pretrain "),
            (Words{"python3", "-m", "trn_trainer", "pretrain"}));
  EXPECT_EQ(split_command_words("a 'b c' \"d \\\"e\\\" \\\\ f\" g\\ h"),
            (Words{"a", "b c", "d \"e\" \\ f", "g h"}));
  EXPECT_EQ(split_command_words("--x='{run_dir}/a b'"), (Words{"--x={run_dir}/a b"}));
  EXPECT_EQ(split_command_words("''"), (Words{""}));
  EXPECT_EQ(split_command_words(""), Words{});
}

TEST(SplitCommandWords, UnclosedQuotesAreErrors) {
  EXPECT_THAT(error_of([] { split_command_words("python3 'oops"); }),
              StartsWith("unclosed ' in the command"));
  EXPECT_THAT(error_of([] { split_command_words("python3 \"oops"); }),
              StartsWith("unclosed \" in the command"));
}

TEST(Placeholders, AreFoundAndChecked) {
  EXPECT_EQ(placeholders_in("--mb={micro_batch}x{grad_accum}"),
            (Words{"micro_batch", "grad_accum"}));
  EXPECT_EQ(placeholders_in("{{literal}} {{"), Words{});
  const std::string message = error_of([] { placeholders_in("--lr={learning_rate}"); });
  EXPECT_THAT(message, StartsWith("unknown placeholder {learning_rate} in '--lr={learning_rate}'"
                                  "; known placeholders: checkpoint_dir, checkpoint_every, "
                                  "checkpoint_local_dir, checkpoint_uri, compile_steps, data, "
                                  "dp, global_batch, grad_accum,"));
  EXPECT_THAT(message, HasSubstr("write '{{' and '}}' for literal braces"));
  EXPECT_THAT(error_of([] { placeholders_in("{global_bach}"); }),
              HasSubstr("(did you mean 'global_batch'?)"));
  EXPECT_THAT(error_of([] { placeholders_in("{micro_batch"); }),
              StartsWith("a '{' without its '}' in '{micro_batch'"));
  EXPECT_THAT(error_of([] { placeholders_in("{a{b}"); }), StartsWith("a '{' without its '}'"));
  EXPECT_THAT(error_of([] { placeholders_in("x}"); }), StartsWith("a lone '}' in 'x}'"));
  EXPECT_THAT(error_of([] { placeholders_in("{}"); }), StartsWith("unknown placeholder {}"));
}

TEST(RenderTemplate, SubstitutesAndUnescapes) {
  const PlaceholderValues values{{"micro_batch", "16"}, {"run_dir", "/runs/a b"}};
  EXPECT_EQ(render_template("--mb={micro_batch}", values), "--mb=16");
  EXPECT_EQ(render_template("{{\"mb\": {micro_batch}}}", values), "{\"mb\": 16}");
  // A value holding a blank stays inside its word.
  EXPECT_EQ(render_command(split_command_words("train --out {run_dir}/ckpt"), values),
            (Words{"train", "--out", "/runs/a b/ckpt"}));
  EXPECT_THAT(error_of([&] { render_template("{lr}", values); }),
              StartsWith("{lr} has no value: the profile sets no lr"));
}

TEST(RenderTemplate, EveryKnownPlaceholderHasAPlanValue) {
  Plan plan;
  plan.lr = 1e-3;
  plan.model = "m";
  plan.data = "d";
  plan.seq_len = 128;
  plan.checkpoint_uri = "s3://bucket/runs";
  plan.checkpoint_local_dir = "/scratch/trn-checkpoints/run";
  for (const bool compile : {false, true}) {
    const auto values = placeholder_values(plan, compile);
    Words names;
    for (const auto& [name, value] : values) names.push_back(name);
    EXPECT_EQ(names, known_placeholders());
  }
}

TEST(RenderTemplate, CheckpointPlaceholdersAndResumability) {
  Plan plan;
  plan.run_dir = "/fsx/runs/llama-7";
  const auto values = placeholder_values(plan, false);
  EXPECT_EQ(render_template("--ckpt={checkpoint_dir}", values), "--ckpt=/fsx/runs/llama-7");
  EXPECT_THAT(error_of([&] { render_template("{checkpoint_uri}", values); }),
              StartsWith("{checkpoint_uri} has no value: the profile sets no checkpoint_uri"));
  plan.checkpoint_uri = "s3://b/p";
  EXPECT_EQ(render_template("{checkpoint_uri}", placeholder_values(plan, false)), "s3://b/p");
}

TEST(DisplayCommand, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(display_command({"python3", "-m", "x", "--lr=0.0004", "a b", "it's", ""}),
            "python3 -m x --lr=0.0004 'a b' 'it'\\''s' ''");
}

}  // namespace
