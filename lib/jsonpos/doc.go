// Package jsonpos says where in a JSON file a decoding error is: the
// file, line and column, computed from the byte offset encoding/json
// reports, so every command names a broken file the same way
// ("feature_1.0.0.json:3:14: invalid character ...").
package jsonpos
