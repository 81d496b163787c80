#include "trn/forecast/published_points.hpp"

#include <array>
#include <charconv>
#include <tuple>

namespace trn::forecast {
namespace {

// The tables behind Neuron's "Trn1/Trn1n training performance" page, in the aws-neuron-sdk
// repository (https://github.com/aws-neuron/aws-neuron-sdk), every version of each file in its
// history (docs/planner.md#published). BF16 points of the models the forecast knows; the FP32
// ones are left out (no bundled profile trains in FP32, and the forecast prices bf16 only).
constexpr std::string_view kNlpData = "general/benchmarks/trn1/nlp_data.csv";
constexpr std::string_view kTrn1nNlpData = "general/benchmarks/trn1/trn1_trn1n_nlp_data.csv";
constexpr std::string_view kEncoder = "general/benchmarks/trn1/training_data_encoder.csv";
constexpr std::string_view kEncoderAbout = "about-neuron/benchmarks/trn1/training_data_encoder.csv";
constexpr std::string_view kDecoder = "general/benchmarks/trn1/training_data_decoder.csv";

using R = PointRole;
using P = PublishedPoint;
// model, release, seq_len, nodes, tp, pp, micro-batch, global batch, optimizer, framework,
// setup, seq/s, role, table.
constexpr std::array kPoints{
    P{"bert-large", "2.3.0", 128, 1, 1, 1, 16, 16384, "", "HF", "HF, BF16+SR", 2845.7,
      R::kMicroStep, kNlpData},
    P{"bert-large", "2.3.0", 128, 16, 1, 1, 16, 262144, "", "HF", "HF, BF16+SR", 42132.24,
      R::kValidation, kNlpData},
    P{"bert-large", "2.3.0", 512, 1, 1, 1, 2, 2048, "", "HF", "HF, BF16+SR", 478.6,
      R::kAttentionFit, kNlpData},
    P{"bert-large", "2.3.0", 512, 16, 1, 1, 2, 32768, "", "HF", "HF, BF16+SR", 6802.05,
      R::kValidation, kNlpData},
    P{"bert-large", "2.3.0+interim", 512, 1, 1, 1, 2, 32768, "", "HF", "HF, BF16+SR", 478.6,
      R::kValidation, kNlpData},
    P{"bert-large", "2.3.0+interim", 512, 16, 1, 1, 2, 524288, "", "HF", "HF, BF16+SR", 7133,
      R::kValidation, kNlpData},
    P{"bert-large", "2.4.0+interim", 128, 16, 1, 1, 16, 262144, "", "HF", "HF, BF16+SR", 42483.56,
      R::kValidation, kNlpData},
    P{"bert-large", "2.4.0+interim", 512, 16, 1, 1, 2, 524288, "", "HF", "HF, BF16+SR", 7186.5,
      R::kValidation, kNlpData},
    P{"bert-large", "2.4.0+interim", 128, 1, 1, 1, 16, 16384, "", "HF", "HF, BF16+SR", 2846,
      R::kMicroStep, kNlpData},
    P{"bert-large", "2.4.0+interim", 128, 16, 1, 1, 16, 262144, "", "HF", "HF, BF16+SR", 42484,
      R::kValidation, kNlpData},
    P{"bert-large", "2.4.0+interim", 512, 1, 1, 1, 2, 32768, "", "HF", "HF, BF16+SR", 479,
      R::kValidation, kNlpData},
    P{"bert-large", "2.4.0+interim", 512, 16, 1, 1, 2, 524288, "", "HF", "HF, BF16+SR", 7187,
      R::kValidation, kNlpData},
    P{"bert-large", "2.5.0+interim", 128, 1, 1, 1, 16, 16384, "", "HF", "HF, Autocast:BF16+SR",
      3365, R::kMicroStep, kNlpData},
    P{"bert-large", "2.5.0+interim", 512, 1, 1, 1, 2, 32768, "", "HF", "HF, Autocast:BF16+SR",
      527.95, R::kValidation, kNlpData},
    P{"bert-large", "2.6.0", 128, 16, 1, 1, 16, 262144, "", "HF", "HF, Autocast:BF16+SR", 49846,
      R::kValidation, kNlpData},
    P{"bert-large", "2.6.0", 512, 16, 1, 1, 2, 524288, "", "HF", "HF, Autocast:BF16+SR", 8084,
      R::kValidation, kNlpData},
    P{"bert-large", "2.9.1", 128, 16, 1, 1, 16, 262144, "adamw", "HF", "HF, Autocast:BF16+SR, weak",
      48414, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.9.1", 512, 16, 1, 1, 2, 524288, "adamw", "HF", "HF, Autocast:BF16+SR, weak",
      7522, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.9.1", 128, 16, 1, 1, 16, 262144, "lamb", "HF",
      "HF, Autocast:BF16+SR, strong", 41242, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.11.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 54653, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.11.0", 512, 16, 1, 1, 2, 524288, "lamb", "HF", "HF, Autocast:BF16+SR, weak",
      7741, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.11.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3512, R::kMicroStep, kTrn1nNlpData},
    P{"bert-large", "2.11.0", 128, 1, 1, 1, 16, 65536, "lamb", "HF", "HF, Autocast:BF16+SR, strong",
      3629, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.11.0+interim", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 53083.70, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.11.0+interim", 512, 16, 1, 1, 2, 524288, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 7453.02, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.11.0+interim", 128, 16, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:Amp, strong", 24518.07, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.11.0+interim", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3368.97, R::kMicroStep, kTrn1nNlpData},
    P{"bert-large", "2.11.0+interim", 128, 1, 1, 1, 16, 65536, "lamb", "HF",
      "HF, Autocast:BF16+SR, strong", 3473.20, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.12.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 53436.34, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.12.0", 512, 16, 1, 1, 2, 524288, "lamb", "HF", "HF, Autocast:BF16+SR, weak",
      7446.69, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.12.0", 128, 16, 1, 1, 16, 16384, "adamw", "HF", "HF, Autocast:Amp, strong",
      24763.85, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.12.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3409.78, R::kMicroStep, kTrn1nNlpData},
    P{"bert-large", "2.12.0", 128, 1, 1, 1, 16, 65536, "lamb", "HF", "HF, Autocast:BF16+SR, strong",
      3520.05, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.13.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 52585.88, R::kNetworkFit, kTrn1nNlpData},
    P{"bert-large", "2.13.0", 512, 16, 1, 1, 2, 524288, "lamb", "HF", "HF, Autocast:BF16+SR, weak",
      7258.34, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.13.0", 128, 16, 1, 1, 16, 16384, "adamw", "HF", "HF, Autocast:Amp, strong",
      25547.62, R::kNetworkFit, kTrn1nNlpData},
    P{"bert-large", "2.13.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3614.49, R::kMicroStep, kTrn1nNlpData},
    P{"bert-large", "2.13.0", 128, 1, 1, 1, 16, 65536, "lamb", "HF", "HF, Autocast:BF16+SR, strong",
      3400.96, R::kValidation, kTrn1nNlpData},
    P{"llama2-7b", "2.13.1", 4096, 16, 8, 1, 1, 256, "adamw", "NeMo",
      "NeMo, Autocast:BF16+SR, strong", 49.75, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.14.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 52305.17, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.14.0", 512, 16, 1, 1, 2, 524288, "lamb", "HF", "HF, Autocast:BF16+SR, weak",
      6997.3584, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.14.0", 128, 16, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16/AMP, strong", 24518.47, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.14.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3618.22, R::kMicroStep, kTrn1nNlpData},
    P{"bert-large", "2.14.0", 128, 1, 1, 1, 16, 65536, "lamb", "HF", "HF, Autocast:BF16+SR, strong",
      3442.49, R::kValidation, kTrn1nNlpData},
    P{"llama2-13b", "2.14.0", 4096, 16, 8, 4, 1, 1024, "adamw", "NeMo",
      "NeMo, Autocast:BF16+SR, strong", 31.3, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.16.1", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 53069, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.16.1", 512, 16, 1, 1, 2, 524288, "lamb", "HF", "HF, Autocast:BF16+SR, weak",
      7507, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.16.1", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3530, R::kMicroStep, kTrn1nNlpData},
    P{"bert-large", "2.16.1", 128, 1, 1, 1, 16, 65536, "lamb", "HF", "HF, Autocast:BF16+SR, strong",
      3733, R::kValidation, kTrn1nNlpData},
    P{"llama2-7b", "2.16.1", 4096, 32, 8, 4, 1, 1024, "adamw", "NeMo",
      "NeMo, Autocast:BF16+SR, strong", 82, R::kValidation, kTrn1nNlpData},
    P{"llama2-13b", "2.16.1", 4096, 32, 8, 4, 1, 1024, "adamw", "NeMo",
      "NeMo, Autocast:BF16+SR, strong", 60, R::kValidation, kTrn1nNlpData},
    P{"llama2-7b", "2.16.1", 4096, 16, 8, 1, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 81, R::kValidation, kTrn1nNlpData},
    P{"bert-large", "2.16.1", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 53345, R::kValidation, kEncoder},
    P{"bert-large", "2.16.1", 512, 16, 1, 1, 2, 524288, "lamb", "HF", "HF, Autocast:BF16+SR, weak",
      7350.8, R::kValidation, kEncoder},
    P{"bert-large", "2.16.1", 128, 16, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16/AMP, strong", 24518.47, R::kValidation, kEncoder},
    P{"bert-large", "2.16.1", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3581, R::kMicroStep, kEncoder},
    P{"bert-large", "2.16.1", 128, 1, 1, 1, 16, 65536, "lamb", "HF", "HF, Autocast:BF16+SR, strong",
      3813.6, R::kValidation, kEncoder},
    P{"bert-large", "2.17.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 53644, R::kValidation, kEncoder},
    P{"bert-large", "2.17.0", 512, 16, 1, 1, 2, 524288, "lamb", "HF", "HF, Autocast:BF16+SR, weak",
      7350, R::kValidation, kEncoder},
    P{"bert-large", "2.17.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3586, R::kMicroStep, kEncoder},
    P{"bert-large", "2.17.0", 128, 1, 1, 1, 16, 65536, "lamb", "HF", "HF, Autocast:BF16+SR, strong",
      3710.6, R::kValidation, kEncoder},
    P{"bert-large", "2.18.2", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 52921, R::kValidation, kEncoder},
    P{"bert-large", "2.18.2", 512, 16, 1, 1, 2, 524288, "lamb", "HF", "HF, Autocast:BF16+SR, weak",
      7589, R::kValidation, kEncoder},
    P{"bert-large", "2.18.2", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3311.59, R::kMicroStep, kEncoder},
    P{"bert-large", "2.18.2", 128, 1, 1, 1, 16, 65536, "lamb", "HF", "HF, Autocast:BF16+SR, strong",
      3478, R::kValidation, kEncoder},
    P{"bert-large", "2.20.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 61765.4, R::kValidation, kEncoder},
    P{"bert-large", "2.20.0", 512, 16, 1, 1, 2, 524288, "lamb", "HF", "HF, Autocast:BF16+SR, weak",
      8396.1, R::kValidation, kEncoder},
    P{"bert-large", "2.20.0", 128, 16, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16/AMP, strong", 25853.3, R::kValidation, kEncoder},
    P{"bert-large", "2.20.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 4379.6, R::kMicroStep, kEncoder},
    P{"bert-large", "2.20.0", 128, 1, 1, 1, 16, 65536, "lamb", "HF", "HF, Autocast:BF16+SR, strong",
      4538.5, R::kValidation, kEncoder},
    P{"bert-large", "2.21.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 55102.1, R::kValidation, kEncoder},
    P{"bert-large", "2.21.0", 512, 16, 1, 1, 2, 524288, "lamb", "HF", "HF, Autocast:BF16+SR, weak",
      7832.4, R::kValidation, kEncoder},
    P{"bert-large", "2.21.0", 128, 16, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16/AMP, strong", 26069.4, R::kValidation, kEncoder},
    P{"bert-large", "2.21.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3963.0, R::kMicroStep, kEncoder},
    P{"bert-large", "2.21.0", 128, 1, 1, 1, 16, 65536, "lamb", "HF", "HF, Autocast:BF16+SR, strong",
      4137.9, R::kValidation, kEncoder},
    P{"bert-large", "2.22.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 54357.1, R::kValidation, kEncoder},
    P{"bert-large", "2.22.0", 512, 16, 1, 1, 2, 524288, "lamb", "HF", "HF, Autocast:BF16+SR, weak",
      7800.9, R::kValidation, kEncoder},
    P{"bert-large", "2.22.0", 128, 16, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16/AMP, strong", 26474.4, R::kValidation, kEncoder},
    P{"bert-large", "2.22.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3737.1, R::kMicroStep, kEncoder},
    P{"bert-large", "2.22.0", 128, 1, 1, 1, 16, 65536, "lamb", "HF", "HF, Autocast:BF16+SR, strong",
      3890.7, R::kValidation, kEncoder},
    P{"bert-large", "2.23.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 53655.8, R::kValidation, kEncoder},
    P{"bert-large", "2.23.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3705.1, R::kMicroStep, kEncoder},
    P{"bert-large", "2.24.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 52515.4, R::kValidation, kEncoder},
    P{"bert-large", "2.24.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3714.4, R::kMicroStep, kEncoder},
    P{"bert-large", "2.25.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 52431.5, R::kValidation, kEncoder},
    P{"bert-large", "2.25.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3704.1, R::kMicroStep, kEncoder},
    P{"bert-large", "2.26.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 55617.28, R::kValidation, kEncoder},
    P{"bert-large", "2.26.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3697.71, R::kMicroStep, kEncoder},
    P{"llama2-7b", "2.16.1", 4096, 32, 8, 4, 1, 1024, "adamw", "NeMo",
      "NeMo, Autocast:BF16+SR, strong", 88, R::kValidation, kDecoder},
    P{"llama2-13b", "2.16.1", 4096, 16, 8, 4, 1, 1024, "adamw", "NeMo",
      "NeMo, Autocast:BF16+SR, strong", 64, R::kValidation, kDecoder},
    P{"llama2-7b", "2.16.1", 4096, 16, 8, 1, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 93.3, R::kFamilyFit, kDecoder},
    P{"llama2-13b", "2.16.1", 4096, 32, 8, 4, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 85.65, R::kValidation, kDecoder},
    P{"llama2-70b", "2.16.1", 4096, 32, 32, 4, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 15.34, R::kValidation, kDecoder},
    P{"llama2-7b", "2.17.0", 4096, 32, 8, 4, 1, 1024, "adamw", "NeMo",
      "NeMo, Autocast:BF16+SR, strong", 89, R::kValidation, kDecoder},
    P{"llama2-13b", "2.17.0", 4096, 16, 8, 4, 1, 1024, "adamw", "NeMo",
      "NeMo, Autocast:BF16+SR, strong", 64.7, R::kValidation, kDecoder},
    P{"llama2-7b", "2.17.0", 4096, 16, 8, 1, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 94.7, R::kValidation, kDecoder},
    P{"llama2-13b", "2.17.0", 4096, 32, 8, 4, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 81.8, R::kValidation, kDecoder},
    P{"llama2-70b", "2.17.0", 4096, 32, 32, 4, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 15.6, R::kValidation, kDecoder},
    P{"llama2-7b", "2.18.2", 4096, 16, 8, 1, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 92.93, R::kValidation, kDecoder},
    P{"llama2-13b", "2.18.2", 4096, 32, 8, 4, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 87.44, R::kValidation, kDecoder},
    P{"llama2-70b", "2.18.2", 4096, 32, 32, 4, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 17.86, R::kValidation, kDecoder},
    P{"llama2-7b", "2.20.0+interim", 4096, 16, 8, 1, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 101.3, R::kValidation, kDecoder},
    P{"llama2-13b", "2.20.0+interim", 4096, 32, 8, 8, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 84.0, R::kValidation, kDecoder},
    P{"llama2-70b", "2.20.0+interim", 4096, 32, 32, 8, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 14.2, R::kValidation, kDecoder},
    P{"llama2-7b", "2.21.0", 4096, 16, 8, 1, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 95.14, R::kValidation, kDecoder},
    P{"llama2-13b", "2.21.0", 4096, 32, 8, 8, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 80.33, R::kValidation, kDecoder},
    P{"llama2-70b", "2.21.0", 4096, 32, 32, 8, 1, 1024, "adamw", "NxD",
      "NxD, Autocast:BF16+FP32Optimizer, strong", 14.44, R::kValidation, kDecoder},
    P{"bert-large", "2.27.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 56923.6521, R::kValidation, kEncoderAbout},
    P{"bert-large", "2.27.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3836.4653, R::kMicroStep, kEncoderAbout},
    P{"bert-large", "2.28.0", 128, 16, 1, 1, 16, 1048576, "lamb", "HF",
      "HF, Autocast:BF16+SR, weak", 57407.9207, R::kValidation, kEncoderAbout},
    P{"bert-large", "2.28.0", 128, 1, 1, 1, 16, 16384, "adamw", "HF",
      "HF, Autocast:BF16+SR, strong", 3826.6103, R::kMicroStep, kEncoderAbout},
};

std::tuple<int, int, int, bool> release_key(std::string_view release) {
  std::tuple<int, int, int, bool> key{0, 0, 0, release.ends_with("+interim")};
  int* parts[] = {&std::get<0>(key), &std::get<1>(key), &std::get<2>(key)};
  const char* at = release.data();
  const char* end = release.data() + release.size();
  for (int* part : parts) {
    const auto [next, ec] = std::from_chars(at, end, *part);
    if (ec != std::errc() || next == end || *next != '.') break;
    at = next + 1;
  }
  return key;
}

}  // namespace

std::span<const PublishedPoint> published_points() { return kPoints; }

bool earlier_release(std::string_view a, std::string_view b) {
  return release_key(a) < release_key(b);
}

bool bundled_profile_shape(const PublishedPoint& p) {
  if (p.framework == "NeMo") return false;
  if (p.model == "bert-large") {
    return (p.seq_len == 128 && p.micro_batch == 16) || (p.seq_len == 512 && p.micro_batch == 2);
  }
  return p.model == "llama2-7b" && p.tensor_parallel == 8 && p.pipeline_parallel == 1 &&
         p.seq_len == 4096 && p.micro_batch == 1;
}

}  // namespace trn::forecast
