#!/usr/bin/env python3
"""Write a dp_accounting DpEvent as the JSON that `dpref audit accountant --event` reads.

Standard library only: importing this file does not need dp_accounting. It converts

* any object with ``to_named_tuple()`` (every dp_accounting ``DpEvent``): the named tuple it
  returns carries ``module_name``, ``class_name`` and the constructor's fields;
* any named tuple (or object with ``_asdict()``): its fields, plus ``class_name`` = the type's
  name when it has none (so a hand-made ``namedtuple('GaussianDpEvent', 'noise_multiplier')``
  works);
* lists and tuples of events (``ComposedDpEvent.events``), numbers, strings, and numpy scalars
  (through ``.item()``).

NaN and infinities are refused (JSON has none, and an accountant's input never needs them).

From Python, with dp_accounting installed::

    import dp_accounting
    from dp_event_to_json import dp_event_to_json
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.RandomizedResponseDpEvent(noise_parameter=0.5, num_buckets=2), 10)
    open("event.json", "w").write(dp_event_to_json(event))

then ``dpref audit accountant --event event.json --claimed-epsilon E --delta D
--neighbouring replace-one``.

From the command line, ``--example c20`` writes anchors C20's event (randomized response
p = 0.5, 2 buckets, composed 10 times), built from hand-made named tuples, to ``--out``.
"""

import argparse
import collections
import json
import math
import sys

__all__ = ["to_plain", "dp_event_to_json"]


def to_plain(obj):
    """The JSON-ready value of a dp_accounting event (or a part of one)."""
    if hasattr(obj, "to_named_tuple") and callable(obj.to_named_tuple):
        obj = obj.to_named_tuple()
    if hasattr(obj, "_asdict") and callable(obj._asdict):
        fields = obj._asdict()
        out = {str(k): to_plain(v) for k, v in fields.items()}
        if "class_name" not in out:
            out["class_name"] = type(obj).__name__
        return out
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if obj is None or isinstance(obj, (bool, str, int)):
        return obj
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise ValueError("a DpEvent field is %r; JSON has no NaN or infinity" % obj)
        return obj
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalars
        return to_plain(obj.item())
    raise TypeError("cannot convert %s to JSON: not a DpEvent, named tuple, list or number" % type(obj).__name__)


def dp_event_to_json(event, indent=2):
    """The JSON text of `event` for `dpref audit accountant --event`."""
    return json.dumps(to_plain(event), indent=indent, allow_nan=False) + "\n"


def c20_event():
    """Anchors C20's event, as dp_accounting's to_named_tuple() would give it."""
    rr = collections.namedtuple("RandomizedResponseDpEvent", ["module_name", "class_name", "noise_parameter", "num_buckets"])
    sc = collections.namedtuple("SelfComposedDpEvent", ["module_name", "class_name", "event", "count"])
    module = "dp_accounting.dp_event"
    return sc(module, "SelfComposedDpEvent", rr(module, "RandomizedResponseDpEvent", 0.5, 2), 10)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--example", choices=["c20"], required=True, help="which example event to write")
    parser.add_argument("--out", required=True, help="the JSON file to write")
    args = parser.parse_args(argv)
    with open(args.out, "w") as f:
        f.write(dp_event_to_json(c20_event()))
    print("wrote %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
