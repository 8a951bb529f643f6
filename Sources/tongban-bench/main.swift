print("tongban: building")
