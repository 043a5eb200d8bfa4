/* Symbol visibility for the bcast C ABI. Everything not marked BC_API is
 * hidden in the shared library. */
#ifndef BCAST_EXPORT_H
#define BCAST_EXPORT_H

#if defined(_WIN32) && !defined(BCAST_STATIC_DEFINE)
#  if defined(BCAST_BUILDING)
#    define BC_API __declspec(dllexport)
#  else
#    define BC_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) || defined(__clang__)
#  define BC_API __attribute__((visibility("default")))
#else
#  define BC_API
#endif

#endif /* BCAST_EXPORT_H */
