#!/usr/bin/env python3
"""Record frames of a Life-like or Generations rule on a torus, as `train rule --frames`
reads them: a NumPy .npy of shape (T, H, W), uint8 states (0 dead, 1 alive, 2... dying).

    python3 scripts/record-rule.py brain.npy --birth 2 --survive "" --states 3 --seed 1
"""

import argparse

import numpy as np


def step(
    grid: np.ndarray, birth: set[int], survive: set[int], states: int
) -> np.ndarray:
    """One generation: live neighbours counted on the torus (dying cells do not count)."""
    alive = (grid == 1).astype(np.int32)
    count = sum(
        np.roll(np.roll(alive, dr, 0), dc, 1)
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if (dr, dc) != (0, 0)
    )
    out = np.zeros_like(grid)
    out[(grid == 0) & np.isin(count, list(birth))] = 1
    live = grid == 1
    out[live & np.isin(count, list(survive))] = 1
    out[live & ~np.isin(count, list(survive))] = 2 if states > 2 else 0
    older = grid >= 2
    out[older] = np.where(grid[older] + 1 < states, grid[older] + 1, 0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the .npy file to write")
    parser.add_argument(
        "--birth", default="3", help="neighbour counts that give birth (digits)"
    )
    parser.add_argument(
        "--survive", default="23", help="neighbour counts that survive (digits)"
    )
    parser.add_argument(
        "--states", type=int, default=2, help="states (3 or more: Generations)"
    )
    parser.add_argument("--size", type=int, default=64, help="side of the torus")
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0, help="seed of the random soup")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    grid = rng.integers(0, args.states, (args.size, args.size)).astype(np.uint8)
    frames = []
    for _ in range(args.frames):
        frames.append(grid)
        grid = step(
            grid, set(map(int, args.birth)), set(map(int, args.survive)), args.states
        )
    np.save(args.out, np.array(frames, dtype=np.uint8))


if __name__ == "__main__":
    main()
