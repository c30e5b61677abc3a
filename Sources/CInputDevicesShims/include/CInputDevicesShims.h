#ifndef C_INPUT_DEVICES_SHIMS_H
#define C_INPUT_DEVICES_SHIMS_H

// ioctl(2) is variadic, and Swift cannot call variadic C functions; these fixed-signature wrappers
// let InputDevices pass either a pointer or an integer argument (as swift-system does with its shims).

/// ioctl with a pointer argument (EVIOCGNAME, EVIOCGABS, JSIOCGAXES, ...).
int hitthat_ioctl_pointer(int descriptor, unsigned long request, void *argument);

/// ioctl with an integer argument passed by value (EVIOCGRAB).
int hitthat_ioctl_value(int descriptor, unsigned long request, long argument);

#endif
