// Package typereg lets this module's tests outside imgkit/makefs undo a
// makefs.Register, which a program has no reason to do and so finds no
// exported function for: imgkit/makefs sets Unregister from its init.
package typereg

// Unregister removes the registered makefs type name. It is nil until
// imgkit/makefs is initialised, which importing it ensures.
var Unregister func(name string)
