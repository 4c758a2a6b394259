-- Store the accuracy rows of newly computed schemes (registered frame new_accuracy).
INSERT INTO estimate_accuracy BY NAME SELECT * FROM new_accuracy;
