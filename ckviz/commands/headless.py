"""`ckviz --headless`: plan the matrix from the flags, then run it on a workspace."""

from __future__ import annotations

import argparse

from ckviz.commands.loading import loading


def run_headless(ns: argparse.Namespace) -> int:
    from ckviz.commands.redis_options import redis_url
    from ckviz.store.server import server_started_early

    # an embedded server starts while the matrix loads (the flags are checked in the same
    # order as ever: a server that cannot start says so after them)
    with server_started_early(ns.redis or "embedded", redis_url(ns)[0]):
        with loading():  # the matrix's modules and scenarios: kept to the end
            from ckviz.commands.redis_options import server_choice
            from ckviz.headless.consoles import Consoles
            from ckviz.headless.matrix import run_matrix
            from ckviz.headless.plan import plan_from_args

            plan = plan_from_args(ns)
            choice = server_choice(ns)
        return run_matrix(plan, choice, Consoles(quiet=ns.quiet))
