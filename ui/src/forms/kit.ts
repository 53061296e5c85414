// The form kit: state and frame (frame.tsx) and the field controls (fields.tsx), from one
// import for the forms.
export * from "./frame";
export * from "./fields";
