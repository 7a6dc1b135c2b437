"""From a model's response text to a parsed answer: :mod:`.text` prepares the text,
:mod:`.grammar` parses it, :mod:`.parsers` holds one parser per answer shape, and
:mod:`.values` the values they yield. Nothing here knows the PDDL task."""
