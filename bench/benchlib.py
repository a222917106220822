# SPDX-License-Identifier: GPL-2.0
"""What the bench's reports share: reading the guests' key=value lines."""


def kv(words):
    """The key=value words of a RESULT/META line as a dict (others left out)."""
    return dict(w.split('=', 1) for w in words if '=' in w)
