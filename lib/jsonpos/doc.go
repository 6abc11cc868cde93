// Package jsonpos says where in a JSON file an error is: the file, line
// and column, computed from the byte offset encoding/json or
// lib/jsoncheck reports, so every command names a broken file the same
// way ("feature_1.0.0.json:3:14: not valid JSON: ..."). jsoncheck, the
// gate every reader passes, places its errors with it.
package jsonpos
