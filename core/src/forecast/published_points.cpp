#include "trn/forecast/published_points.hpp"

#include <array>

namespace trn::forecast {
namespace {

// The tables behind Neuron's "Trn1/Trn1n training performance" page, in aws-neuron-sdk:
constexpr std::string_view k213 = "general/benchmarks/trn1/trn1_trn1n_nlp_data.csv (Neuron 2.13)";
constexpr std::string_view k216 = "general/benchmarks/trn1/training_data_decoder.csv (Neuron 2.16)";
constexpr std::string_view k226 = "general/benchmarks/trn1/training_data_encoder.csv (Neuron 2.26)";
constexpr std::string_view k227 =
    "about-neuron/benchmarks/trn1/training_data_encoder.csv (Neuron 2.27)";
constexpr std::string_view k228 = "Neuron trn1 training performance page (Neuron 2.28)";

using R = PointRole;
constexpr std::array kPoints{
    // BERT-Large phase 1 (seq 128), 32 NeuronCores per node, data parallel only.
    PublishedPoint{"bert-large", "2.28", 128, 1, 1, 1, 16, 16384, "AdamW, bf16+SR, strong", 3826.6,
                   R::kMicroStep, k228},
    PublishedPoint{"bert-large", "2.28", 128, 16, 1, 1, 16, 1048576, "LAMB, bf16+SR, weak", 57407.9,
                   R::kValidation, k228},
    PublishedPoint{"bert-large", "2.27", 128, 1, 1, 1, 16, 16384, "AdamW, bf16+SR, strong",
                   3836.4653, R::kMicroStep, k227},
    PublishedPoint{"bert-large", "2.27", 128, 16, 1, 1, 16, 1048576, "LAMB, bf16+SR, weak",
                   56923.6521, R::kValidation, k227},
    PublishedPoint{"bert-large", "2.26", 128, 1, 1, 1, 16, 16384, "AdamW, bf16+SR, strong", 3697.71,
                   R::kMicroStep, k226},
    PublishedPoint{"bert-large", "2.26", 128, 16, 1, 1, 16, 1048576, "LAMB, bf16+SR, weak",
                   55617.28, R::kValidation, k226},
    PublishedPoint{"bert-large", "2.13", 128, 1, 1, 1, 16, 16384, "AdamW, bf16+SR, strong", 3614.49,
                   R::kMicroStep, k213},
    PublishedPoint{"bert-large", "2.13", 128, 16, 1, 1, 16, 1048576, "LAMB, bf16+SR, weak",
                   52585.88, R::kNetworkFit, k213},
    PublishedPoint{"bert-large", "2.13", 128, 16, 1, 1, 16, 16384, "AdamW, bf16 AMP, strong",
                   25547.62, R::kNetworkFit, k213},
    PublishedPoint{"bert-large", "2.13", 128, 1, 1, 1, 16, 65536, "LAMB, bf16+SR, strong", 3400.96,
                   R::kValidation, k213},
    // Llama 2 with neuronx-distributed (tensor and pipeline parallel, ZeRO-1), seq 4,096.
    PublishedPoint{"llama2-7b", "2.16", 4096, 16, 8, 1, 1, 1024, "AdamW, bf16 + fp32 optimizer",
                   93.3, R::kFamilyFit, k216},
    PublishedPoint{"llama2-13b", "2.16", 4096, 32, 8, 4, 1, 1024, "AdamW, bf16 + fp32 optimizer",
                   85.65, R::kValidation, k216},
    PublishedPoint{"llama2-70b", "2.16", 4096, 32, 32, 4, 1, 1024, "AdamW, bf16 + fp32 optimizer",
                   15.34, R::kValidation, k216},
};

}  // namespace

std::span<const PublishedPoint> published_points() { return kPoints; }

}  // namespace trn::forecast
