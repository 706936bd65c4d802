"""One cell: a run in its own key namespace on a server that may be someone else's.

Above sim/, only this surface is imported: the server opened and its namespace claimed
(`open_workspace`), the prefix root checked, what a workload's keys will take (`need_of`) and
whether it can finish within the logical time limit (`reject_unfinishable`).
"""

from ckviz.sim.cell.feasibility import reject_unfinishable
from ckviz.sim.cell.footprint import Need, need_of
from ckviz.sim.cell.namespace import check_root
from ckviz.sim.cell.session import new_namespace
from ckviz.sim.cell.workspace import ServerChoice, open_workspace

__all__ = [
    "Need",
    "ServerChoice",
    "check_root",
    "need_of",
    "new_namespace",
    "open_workspace",
    "reject_unfinishable",
]
