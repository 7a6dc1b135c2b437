"""Models behind the one-method ``Model`` protocol: HTTP chat APIs, a user's command, a cache.

The pipelines (ACPBench Hard runs, the CoPE formalizer loops) only call ``model(prompt)``.
The clients here add what a real endpoint needs around that call: retries with backoff,
concurrency, a response cache on disk, and a :class:`~.completion.Completion` record of
every response (model, parameters, token usage, latency, cache hit) for the result rows.
"""
