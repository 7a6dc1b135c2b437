"""Language models as the pipelines see them: prompt text in, response text out.

:mod:`.base` holds the one-method :class:`~.base.Model` protocol and the offline
:class:`~.base.ScriptedModel`; real clients live beside it and depend on nothing but
``base``, this room's own modules and ``planning_core.errors``, so the pipelines and their
tests stay offline. The clients (:mod:`.openai_chat` for OpenAI-compatible chat APIs,
:mod:`.command` for a user's program) add what a real endpoint needs around the call:
retries with backoff (:mod:`.retry`), a response cache on disk (:mod:`.cache`), and a
:class:`~.completion.Completion` record of every response (model, parameters, token usage,
latency, cache hit, finish reason) for the result rows. :mod:`.run_setting` says what a
resumable run is keyed on (model, base URL, parameters, the command's own options) and
refuses a rerun that would mix settings.
"""
