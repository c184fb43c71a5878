# source list of src/target (explicit)
