"""The APB tool domains (one JSON tool set per file), installed as the package
``planning_core.validators.toolplans.tool_domains`` (see pyproject.toml) so that
``toolplans generate`` finds them from any folder."""
