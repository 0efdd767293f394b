// Package jsonschema is kimigo's JSON Schema validator for tool arguments
// (spec 01 §4.10.3, ERRATA 29): drafts 07, 2019-09 and 2020-12, formats
// asserted, remote and file $refs refused. The loop checks every call's
// arguments against its tool's parameters through a Cache before the call
// runs; nothing is compiled until a tool is first called, where a
// validator library would compile its metaschemas at process start.
//
// It owns: the dialect choice (cache.go), compiling a schema into a tree of
// nodes with its $ref, $anchor and $dynamicRef resolution (compile.go,
// parser.go), evaluating an instance (eval.go, format.go) and wording the
// problems for the model, sorted by instance path (message.go, cache.go).
// It imports nothing from the project.
//
// Invariants, and the tests that guard them:
//   - The messages are spec 01 §4.10.3's, sorted by instance path, and the
//     same schema and arguments always give the same words
//     (cache_test.go TestSchemaMessages, FuzzSchemaCheck).
//   - Every keyword, format and draft agrees with the library the
//     validator replaced, kept as a test-only oracle (oracle_test.go
//     TestValidatorMatchesOracle, FuzzValidatorOracle).
//   - A schema is compiled once per text, and one that does not compile
//     rejects every call with its compile error (TestSchemaCompiledOnce,
//     TestSchemaCompileError).
package jsonschema
