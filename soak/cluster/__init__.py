"""The cluster soak: a fleet of nodes behind a load balancer, on shared PostgreSQL and Redis,
under a mixed workload with faults (``make soak-cluster``, ``python -m soak.cluster``).

* :mod:`soak.cluster.app`: the app every node serves (database and JWT sessions);
* :mod:`soak.cluster.balancer`: HAProxy in front of the nodes;
* :mod:`soak.cluster.fleet`: PostgreSQL, Redis, the OpenID Provider, the nodes and the
  balancer, started and stopped together; nodes killed, restarted and reconfigured;
* :mod:`soak.cluster.workload`: browsers signing in, reading sessions and access tokens,
  revoking and logging out, through the balancer;
* :mod:`soak.cluster.faults`: the schedule of faults and the secret roll;
* :mod:`soak.cluster.checks`: what the figures must show;
* :mod:`soak.cluster.run`: the whole run and its report.
"""
