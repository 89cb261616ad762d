"""Click commands of the foundation (convert, schema, rules); each imported only when run."""
