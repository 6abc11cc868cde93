// Package jsoncheck is the one gate every JSON reader passes before it
// decodes: a streaming scan, without recursion, that refuses nesting past
// MaxDepth, an object that repeats a key, and anything but exactly one
// JSON value. Its memory is the input's size plus one frame per open
// array or object, so hostile nesting costs neither the stack nor memory
// quadratic in its depth, and the decoders that run after it never see
// deeper input than MaxDepth.
package jsoncheck
