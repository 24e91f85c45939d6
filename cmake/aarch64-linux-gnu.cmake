# Cross build for 64-bit Arm Linux (a Grace host, say) from an x86-64 machine,
# its programs run through qemu-user (scripts/cross-check.sh; Debian's
# gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu and qemu-user).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(GP_AARCH64_SYSROOT /usr/aarch64-linux-gnu CACHE PATH "the target's libraries")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES GP_AARCH64_SYSROOT) # the compiler checks see it too
set(CMAKE_FIND_ROOT_PATH ${GP_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# ctest runs the test programs through it; so do the CLI tests (tests/cli).
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${GP_AARCH64_SYSROOT})
