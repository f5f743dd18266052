// vatkit/gl/gl.h: the GL API for code that uses vatkit::gl and makes its own GL calls.
//
// vatkit loads GL with libepoxy, which resolves every entry point against the current context
// (EGL or GLX) on first use. Include this header instead of <GL/gl.h> or another loader's header
// (they conflict with epoxy's); it is the only vatkit header that pulls in GL declarations.
#pragma once

#include <epoxy/gl.h>
