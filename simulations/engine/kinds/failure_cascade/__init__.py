"""Random failures of every component class, propagated through the power and cooling graphs, against one
synchronous training job that checkpoints, fails, waits for capacity and restarts.

Model
- Rates: job-interrupting events by cause from the job data set of each GPU model in the job
  (``rate_set="per-model"``, the default: H100 "llama3-2024", A100 "meta-rsc1-2024", flagged estimates for
  the other generations; ``campus.analysis.reliability.model_rate_sets``), each applied to that model's GPUs
  and nodes only; or ONE named set for every GPU. Plus, optionally, the facility set
  ("infrastructure-estimates": utility feeds, transformers, UPSs, PDUs, CDUs, chillers...). Overlapping
  job sets are never summed over the same GPUs; a component present in a job set keeps the job set's rate.
- Arrivals: every class is a Poisson process of rate count x 1/MTBF. Their superposition is sampled up
  front with numpy (exponential inter-arrival times at the total rate, the class drawn in proportion to its
  rate, the failing unit drawn uniformly within the class), and one SimPy process walks through the events
  that happen (failures and the repairs that matter), never one process per component. It steps on the
  events that can change the capacity or end a wait; the stretches of job failures between them, where
  each failure finds the capacity to restart and only the job's books change, are booked in one
  vectorised step (``JobTimeline.fail_run``), bit-identical to ``run_per_event``, which steps on every
  failure and repair.
- Job-level classes (per GPU, node, link, switch of the job) interrupt the job. Facility classes are
  propagated: what a failed device, utility feed, CDU or chiller takes down (A/B failover, overload trips,
  cooling that follows power, N+1 cooling groups and plants) is computed once per unit with
  ``campus.analysis.impact.racks_lost`` (the racks of ``impact``: the power roll-up cascade plus the
  cooling rules), cached, and looked
  up in the hot loop. Units down at the same time are judged together
  (``campus.analysis.impact.racks_lost_many``, ``facility.FacilityDown``): both sides of a 2N chain
  down at once darken the racks neither darkens alone. The job is interrupted when a dark rack holds job
  nodes; dark racks stay out of the pool until the unit is repaired.
- Capacity: the job needs its nodes; its spare nodes (``hot_spares``, honoured in every mode) replace
  failed ones. Under "hot_spares" a node failure takes the node out for its repair time; under
  "checkpoint_restart" and "in_memory" the failed part is assumed replaced within the restart (the
  classic Young/Daly setting). When too few healthy nodes remain the job waits for the next repair.
- Recovery: see :mod:`simulations.engine.job`. ``failures_during_recovery`` chooses whether the job's
  parts fail while it restarts or waits (Daly's model) or only while it trains; interruptions count the
  failures that stop a training job, the others are counted apart.
- Server pool (``server_pool``, :mod:`.servers`): the job's nodes one by one, with warm standbys, a spare
  pool that can run dry, bad servers, an automatic then manual repair pipeline, Weibull or exponential
  failure times, and a run that ends when the work is done (``work_days``): the reference case of
  AI-cluster failure simulators. A plain event loop over a heap of repairs, not SimPy (one process).
- Renewal walk (:mod:`.renewal`): the failure classes and facility failures with Weibull failure times
  and/or a run that ends when the work is done; the job's failures drawn as it goes (a renewal process,
  ages afresh at every interruption). A plain event loop too.

Takes a ``CampusSnapshot`` (inventory, failure rate sets, the power and cooling graphs) and
``FailureCascadeParams`` (duration, rate sets, the job and its recovery strategy, repair times). Returns
ETTR, useful and lost GPU-hours and work, interruptions (per cause under ``by_cause``), downtime and waiting
for capacity, facility outages, and the series of cumulative interruptions, useful hours and ETTR over
``t_hours``.

SimPy is the clock: failures and repairs are events at random times whose order decides everything (a
repair that comes before the next failure frees capacity, one that comes after leaves the job waiting), so
one SimPy process walks through them; the arrival times themselves are drawn up front with numpy.

The package is the kind: its parameters (``params``), its model (``model``, with its per-snapshot plan in
``plan``), and its words (``words``: what its metrics mean, what a finished run showed). It satisfies
``simulations.engine.contract.ScenarioModel``; ``simulations.engine.registry`` lists it.
"""

from simulations.engine.kinds.failure_cascade.model import MIN_CHUNK_REPLICAS, prepare, run, stochastic
from simulations.engine.kinds.failure_cascade.params import FailureCascadeParams as Params
from simulations.engine.kinds.failure_cascade.words import METRICS, explain

KIND = "failure_cascade"
LABEL = "Failures and recovery"

__all__ = [
    "KIND",
    "LABEL",
    "METRICS",
    "Params",
    "explain",
    "prepare",
    "run",
    "stochastic",
    "MIN_CHUNK_REPLICAS",
]
