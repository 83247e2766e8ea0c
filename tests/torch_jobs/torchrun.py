"""torchrun (torch.distributed.run), usable with torch 1.13 on Python 3.11+.

torch 1.13 reads --redirects and --tee ("0" by default) by looking the
number up among the members of an IntFlag; since Python 3.11 iterating a
flag skips 0 and aliases, so the default becomes None and torchrun fails
before it starts a rank ("'NoneType' object has no attribute 'get'"). This
reads them as later torch releases do and runs torchrun itself, unchanged:
the launcher's own lines are what the log gets.

  python3 torchrun.py [torchrun's options] script.py [script's options]
"""
import re
import sys

from torch.distributed.elastic.multiprocessing import api


def _std_from_str(cls, text):
    if re.fullmatch(r"[0123]", text):
        return cls(int(text))
    if re.fullmatch(r"(\d:[0123],)*\d:[0123]", text):
        return {int(rank): cls(int(value)) for rank, value in (item.split(":") for item in text.split(","))}
    raise ValueError(f"{text} does not match: <[0123]> or <(\\d:[0123],)*\\d:[0123]>")


api.Std.from_str = classmethod(_std_from_str)

from torch.distributed.run import main  # noqa: E402  (after the fix above)

if __name__ == "__main__":
    sys.exit(main())
