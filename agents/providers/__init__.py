"""Language providers behind one interface: rubric (default, no model), openai, local."""
