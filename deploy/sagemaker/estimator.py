"""Submits deploy/sagemaker/train as a SageMaker training job on 4 x ml.trn1.32xlarge.

Run it where the SageMaker Python SDK is installed and an execution role exists:
    python3 estimator.py --role ROLE_ARN --image IMAGE_URI --data s3://BUCKET/bert/ \
        --checkpoints s3://BUCKET/checkpoints/bert-pretrain/
No distribution is configured: trn-run starts every host's workers itself.
"""
import argparse


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role", required=True)
    parser.add_argument("--image", required=True, help="an image with trn-slurm installed")
    parser.add_argument("--data", required=True, help="S3 prefix of the prepared shards")
    parser.add_argument("--checkpoints", required=True, help="S3 prefix that /opt/ml/checkpoints syncs to")
    parser.add_argument("--instances", type=int, default=4)
    parser.add_argument("--profile", default="bert_pretrain")
    args = parser.parse_args()

    from sagemaker.estimator import Estimator  # the SageMaker Python SDK

    estimator = Estimator(
        image_uri=args.image,
        role=args.role,
        instance_type="ml.trn1.32xlarge",
        instance_count=args.instances,
        entry_point="train",
        source_dir=".",
        environment={"TRN_PROFILE": args.profile},
        # trn-run keeps its run directory here; a restarted job gets it back from S3.
        checkpoint_s3_uri=args.checkpoints,
        checkpoint_local_path="/opt/ml/checkpoints",
        max_retry_attempts=3,
    )
    estimator.fit({"train": args.data})


if __name__ == "__main__":
    main()
