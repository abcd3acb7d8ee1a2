"""The spec layer: user YAML loaded with line numbers, checked against the kind's JSON Schema,
and turned into a template context. Quantities and the kinds registry live here too."""
