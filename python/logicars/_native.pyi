"""Types of the compiled module; `logicars` (``__init__.py``) is the API to use."""

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

Bits = npt.NDArray[np.uint8]
KnobSettings = Sequence[Tuple[str, str]]

def knobs() -> List[Dict[str, Any]]: ...
def presets(small: bool = False) -> Dict[str, Dict[str, Any]]: ...
def start_training(
    task: str,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    small: bool = False,
    knobs: KnobSettings = (),
    full: bool = False,
    target: Optional[Bits] = None,
    channels: Optional[int] = None,
) -> Job: ...
def start_sweep(
    task: str,
    seeds: Sequence[int],
    settings: Sequence[Tuple[str, KnobSettings]],
    small: bool = False,
    threads: Optional[int] = None,
    full: bool = False,
) -> Job: ...

class Job:
    """A training run or a sweep running on its own thread."""

    def poll(self, timeout: float) -> Tuple[List[Tuple[Any, ...]], bool]: ...
    def stop(self) -> None: ...
    def finish(self) -> Dict[str, Any]: ...

class Model:
    @staticmethod
    def load(path: str) -> Model: ...
    @staticmethod
    def from_json(text: str) -> Model: ...
    def save(self, path: str) -> None: ...
    def to_json(self) -> str: ...
    def config_json(self) -> str: ...
    def training_knobs(self) -> Optional[Dict[str, Any]]: ...
    def trained_seed(self) -> Optional[int]: ...
    def gate_count(self) -> int: ...
    def rollout(
        self,
        grid: Optional[Bits] = None,
        size: Optional[Tuple[int, int]] = None,
        steps: Optional[int] = None,
        seed: int = 0,
        damage: Optional[Union[str, Tuple[int, int, int, int]]] = None,
    ) -> Bits: ...
    def eval(
        self,
        grid: Optional[Bits] = None,
        batch: int = 8,
        size: Optional[Tuple[int, int]] = None,
        steps: Optional[int] = None,
        seed: int = 0,
        soft: bool = False,
        threads: Optional[int] = None,
    ) -> Tuple[Optional[float], float, float]: ...
    def fresh_check(self) -> Tuple[bool, float, Optional[bool], Optional[bool]]: ...
    def check(
        self,
        batch: int = 4,
        seed: int = 0,
        block: int = 20,
        robustness_steps: int = 4000,
        threads: Optional[int] = None,
    ) -> str: ...
    def export(self, format: str, unpruned: bool = False) -> str: ...
    def gates(self) -> str: ...
