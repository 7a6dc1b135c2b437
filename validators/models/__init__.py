"""Language models as the pipelines see them: prompt text in, response text out.

:mod:`.base` holds the one-method :class:`~.base.Model` protocol and the offline
:class:`~.base.ScriptedModel`; real clients live beside it and depend on nothing but
``base`` and ``planning_core.errors``, so the pipelines and their tests stay offline.
"""
