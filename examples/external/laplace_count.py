#!/usr/bin/env python3
"""A differentially private count written in Python, as a team might ship it, with a bug: the
Laplace scale is 1/(2*epsilon) instead of sensitivity/epsilon = 1/epsilon. It claims epsilon = 1.

It dumps its outputs on two neighbouring datasets (D has one more matching record than D') so
that dpref can audit it without knowing anything about the code:

    python3 examples/external/laplace_count.py --out /tmp/audit
    cargo run --release -- audit samples --a /tmp/audit/a.txt --b /tmp/audit/b.txt --claimed-epsilon 1

Pass --fixed to dump the corrected mechanism instead (the audit then finds no violation).
Only the standard library is used.
"""
import argparse
import os
import random


def laplace(rng, scale):
    # difference of two exponentials: Laplace(0, scale)
    return scale * (rng.expovariate(1.0) - rng.expovariate(1.0))


def private_count(records, epsilon, rng, fixed):
    true_count = sum(1 for r in records if r >= 18)
    scale = 1.0 / epsilon if fixed else 1.0 / (2.0 * epsilon)  # BUG: off by a factor 2
    return true_count + laplace(rng, scale)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--samples", type=int, default=200_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    d = [17, 25, 40, 18, 33, 61]  # D
    d_prime = d[:-1]  # D': one record removed (add/remove neighbours)
    for name, data in (("a.txt", d), ("b.txt", d_prime)):
        with open(os.path.join(args.out, name), "w") as f:
            for _ in range(args.samples):
                f.write(f"{private_count(data, 1.0, rng, args.fixed)!r}\n")
    print(f"wrote {args.samples} outputs per dataset to {args.out}/a.txt and {args.out}/b.txt")


if __name__ == "__main__":
    main()
