# source list of src/rt (explicit, in pipeline order): the common layer,
# then the CPU device, then the CUDA device
RT_SRC += src/rt/version.c src/rt/error.c src/rt/handle.c src/rt/device.c src/rt/memory.c src/rt/program.c \
          src/rt/args.c src/rt/launch.c src/rt/compile.c src/rt/cache.c src/rt/occupancy.c \
          src/rt/cpu/pool.c src/rt/cpu/cpu.c src/rt/cpu/sched.c \
          src/rt/cuda/driver.c src/rt/cuda/cuda.c src/rt/cuda/binary.c src/rt/cuda/module.c \
          src/rt/cuda/launch.c src/rt/cuda/batch.c src/rt/cuda/printf.c src/rt/cuda/occupancy.c
