"""One gloo all-reduce with nothing but what spank_trn put in the environment.

No MASTER_ADDR, port or rank on the command line or in the job script: init_process_group reads
MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE (env://) as the plugin set them. Each rank
contributes rank + 1 and prints the sum it received, its rank and its host.
"""
import os
import socket

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
value = torch.tensor([float(rank + 1)])
dist.all_reduce(value)
print(f"rank={rank} world={dist.get_world_size()} host={socket.gethostname()} "
      f"master={os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']} sum={int(value.item())}",
      flush=True)
dist.destroy_process_group()
