"""torch_xla.distributed.parallel_loader.MpDeviceLoader (TEST DOUBLE of
https://github.com/pytorch/xla/blob/v2.9.0/torch_xla/distributed/parallel_loader.py): hands out the wrapped
loader's batches on the device, and - like the real one - cuts the graph (xm.mark_step) each
time the next batch is asked for, the call that ends the iteration included. The real one
uploads in background threads; here the upload is a plain move."""

import torch

from ..core import xla_model as xm


def _to_device(data, device):
    if isinstance(data, torch.Tensor):
        return data.to(device)
    if isinstance(data, dict):
        return {k: _to_device(v, device) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return type(data)(_to_device(v, device) for v in data)
    return data


class MpDeviceLoader:
    def __init__(self, loader, device, **kwargs):
        self._loader = loader
        self._device = device

    def __iter__(self):
        for item in self._loader:
            xm.mark_step()
            yield _to_device(item, self._device)
        xm.mark_step()

    def __len__(self):
        return len(self._loader)
