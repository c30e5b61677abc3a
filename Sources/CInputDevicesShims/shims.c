#include "CInputDevicesShims.h"

#include <sys/ioctl.h>

int hitthat_ioctl_pointer(int descriptor, unsigned long request, void *argument) {
    return ioctl(descriptor, request, argument);
}

int hitthat_ioctl_value(int descriptor, unsigned long request, long argument) {
    return ioctl(descriptor, request, argument);
}
