"""The training job a campus exists for: its workload, its step time on the inventory, its checkpoint cost.

``workload``: the model, batch and parallelism, their FLOPs and memory per GPU. ``collectives``: the time of
one collective from bandwidth, latency, size and the tiers it crosses. ``cluster``: the pools of GPUs a job
runs on and where each parallel group lands. ``steptime``: step time, MFU, tokens/s and days, and the scaling
curve. ``recovery``: checkpoint size, write, restore and restart time from storage and the networks.
``presets``: published models and training runs. docs/training.md has every formula and source.
"""
