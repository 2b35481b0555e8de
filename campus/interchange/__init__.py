"""The campus spec: one YAML/JSON document for a whole campus, its import, export and generation.

- ``schema.CAMPUS_SPEC_SCHEMA``: the JSON Schema (shape, types, ranges)
- ``validation.check_spec(data, ...)``: every error of a spec, pure (plain dicts, no database)
- ``importer.import_campus(data)``: validate everything, then write the campus in bulk, atomically
- ``exporter.export_campus(campus)``: the same document back, deterministic
- ``generator.generate_spec(...)``: a reference design as a spec, written by the same importer (one module per
  step: plan, layout, power, cooling, fabric, document)
"""
