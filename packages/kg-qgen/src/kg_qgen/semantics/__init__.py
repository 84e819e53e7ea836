"""World knowledge kg-qgen needs to keep questions logically valid: relation labels and which
relations are single-valued (:mod:`.relations`), entity classes (:mod:`.classes`), demonyms
(:mod:`.demonyms`) and what makes an alias identify its entity (:mod:`.aliases`)."""
